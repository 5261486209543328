import { Link } from "react-router";

/** Any unknown route. */
export function NotFoundPage({ what = "page" }: { readonly what?: string }) {
  return (
    <section>
      <h2>Not found</h2>
      <p>
        There is no such {what}. <Link to="/">Back to the start page</Link>.
      </p>
    </section>
  );
}
