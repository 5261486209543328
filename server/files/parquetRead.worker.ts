// Worker-thread entry: reads Parquet files' footers and row groups (server/files/parquetReader.ts)
// through the pool's RPC (server/workers), so a damaged file ends this worker, not the process.
import { serveWorker } from "../workers/workerServe";
import { type ParquetReadRequest, readParquetPart } from "./parquetReader";

serveWorker((request: ParquetReadRequest) => readParquetPart(request));
