interface TrieNode {
  readonly children: Map<number, TrieNode>;
}

export interface PrefixCache {
  /** Length (tokens) of the longest cached prefix of `ids`. */
  match(ids: readonly number[]): number;
  /** Remembers `ids` (a request's prompt + output) as reusable KV. */
  insert(ids: readonly number[]): void;
  clear(): void;
  readonly size: number;
}

/**
 * A token trie standing in for SGLang's radix cache. When it would exceed `maxTokens` nodes it is
 * emptied, a crude eviction that keeps memory bounded over long RL runs.
 */
export function createPrefixCache(maxTokens = 2_000_000): PrefixCache {
  let root: TrieNode = { children: new Map() };
  let size = 0;
  return {
    match(ids) {
      let node = root;
      let length = 0;
      for (const id of ids) {
        const next = node.children.get(id);
        if (!next) break;
        node = next;
        length++;
      }
      return length;
    },
    insert(ids) {
      if (size + ids.length > maxTokens) {
        root = { children: new Map() };
        size = 0;
      }
      let node = root;
      for (const id of ids) {
        let next = node.children.get(id);
        if (!next) {
          next = { children: new Map() };
          node.children.set(id, next);
          size++;
        }
        node = next;
      }
    },
    clear() {
      root = { children: new Map() };
      size = 0;
    },
    get size() {
      return size;
    },
  };
}
