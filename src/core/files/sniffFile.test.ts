import { describe, expect, it } from "vitest";
import {
  binaryFileProblem,
  delimitedTextKind,
  isArtYamlHead,
  isBarePickleHead,
  isDumpHead,
} from "./sniffFile";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("binaryFileProblem", () => {
  it("names compressed files and says to decompress them", () => {
    expect(binaryFileProblem(bytes(0x1f, 0x8b, 8, 0))).toMatch(
      /^a gzip-compressed file: decompress it first/,
    );
    expect(binaryFileProblem(bytes(0x28, 0xb5, 0x2f, 0xfd, 0))).toMatch(/^a zstd-compressed file/);
  });

  it("tells a legacy torch.save file from a bare pickle", () => {
    const legacy = bytes(
      0x80,
      0x02,
      0x8a,
      0x0a,
      0x6c,
      0xfc,
      0x9c,
      0x46,
      0xf9,
      0x20,
      0x6a,
      0xa8,
      0x50,
    );
    expect(binaryFileProblem(legacy)).toMatch(/^a legacy torch.save file/);
    expect(isBarePickleHead(legacy)).toBe(false);
    // A bare pickle is read (SkyRL's dumped_data/*.pkl, core/files/skyrlBatch.ts), not refused.
    expect(binaryFileProblem(bytes(0x80, 0x04, 0x95))).toBeUndefined();
    expect(isBarePickleHead(bytes(0x80, 0x04, 0x95))).toBe(true);
    expect(isDumpHead(bytes(0x80, 0x04, 0x95))).toBe(true);
  });

  it("knows ART's trajectories YAML (yaml.dump of the groups) by its start, to read it whole", () => {
    const yaml = new TextEncoder().encode("- metadata: {}\n  trajectories:\n  - logs: []\n");
    expect(binaryFileProblem(yaml)).toBeUndefined();
    expect(isArtYamlHead(yaml.slice(0, 16))).toBe(true);
    expect(isArtYamlHead(new TextEncoder().encode("- trajectories:\n"))).toBe(true);
    expect(isArtYamlHead(new TextEncoder().encode("- metadat"))).toBe(false);
    expect(isArtYamlHead(new TextEncoder().encode('{"tokens": [1]}'))).toBe(false);
  });

  it("leaves text, ZIP and Parquet to their readers", () => {
    expect(binaryFileProblem(new TextEncoder().encode('{"tokens": [1]}'))).toBeUndefined();
    expect(binaryFileProblem(bytes(0x50, 0x4b, 3, 4))).toBeUndefined();
    expect(binaryFileProblem(new TextEncoder().encode("PAR1"))).toBeUndefined();
  });
});

describe("Apache Arrow files", () => {
  it("name a datasets save_to_disk shard (an IPC stream) and Feather, with the command to Parquet", () => {
    const stream = bytes(0xff, 0xff, 0xff, 0xff, 0x10, 0x01, 0, 0, 0x10, 0, 0, 0);
    expect(binaryFileProblem(stream)).toMatch(
      /^an Apache Arrow stream \(a Hugging Face datasets save_to_disk shard\).*Dataset\.from_file\(sys\.argv\[1\]\)\.to_parquet/,
    );
    const feather = new TextEncoder().encode("ARROW1\0\0\xff\xff\xff\xff");
    expect(binaryFileProblem(feather)).toMatch(/^an Apache Arrow file \(Feather v2\)/);
    expect(binaryFileProblem(new TextEncoder().encode('{"ARROW1": 1}\n'))).toBeUndefined();
  });
});

describe("delimitedTextKind", () => {
  it("knows a CSV or TSV file by its name, to read it whole as a table", () => {
    expect(delimitedTextKind("runs/completions.CSV")).toBe("csv");
    expect(delimitedTextKind("samples.tsv")).toBe("tsv");
    for (const name of ["rollouts.jsonl", "table.json", "csv", "data.csv.jsonl"]) {
      expect(delimitedTextKind(name)).toBeUndefined();
    }
  });
});
