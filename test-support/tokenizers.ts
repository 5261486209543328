// The real tokenizers for tests outside server/ (src/core, src/tokenizer): the one loader
// (`server/tokenizers/loadTokenizer`), re-exported here so those tests name no server module.
export {
  loadTokenizer,
  readTokenizerFiles,
  resolveTokenizerDir,
} from "../server/tokenizers/loadTokenizer";
