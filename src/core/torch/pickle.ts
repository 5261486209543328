import {
  buildState,
  callGlobal,
  GlobalRef,
  isPlaceholderClass,
  isSkyrlBatchClass,
  persistentStorage,
  placeholder,
  setKey,
  unlistedGlobal,
} from "./pickleGlobals";
import { textOf } from "./textOf";
import { TorchFileError } from "./zipEntries";

/*
 * A restricted pickle machine (docs/format.md "slime and miles `.pt` dumps"): the opcodes of
 * protocols 0-5 that torch.save and numpy write, building plain values (dict -> object, list and
 * tuple -> array, str, bytes -> Uint8Array, int, float, bool, None), torch tensors as references
 * to their storages, numpy arrays, and placeholders for unknown classes (pickleGlobals.ts). It
 * never imports or runs anything the pickle names. Lengths are checked against the bytes left,
 * the stack and memo are bounded, and nesting is bounded where values are walked (plainValue).
 */

/** Largest stack, in values (pickle batches containers by 1000; a real stack stays small). */
export const MAX_STACK = 1 << 22;
/** Largest memo, in entries. */
export const MAX_MEMO = 1 << 24;

type Value = unknown;

class Machine {
  private readonly view: DataView;
  private at: number;
  private stack: Value[] = [];
  private readonly marks: number[] = [];
  private readonly memo = new Map<number, Value>();

  constructor(
    private readonly bytes: Uint8Array,
    start = 0,
  ) {
    this.at = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private fail(message: string): never {
    throw new TorchFileError(`pickle byte ${this.at}: ${message}`);
  }

  private need(n: number, what: string): number {
    if (!Number.isSafeInteger(n) || n < 0 || this.at + n > this.bytes.length) {
      this.fail(
        `${what} declares ${n} bytes but ${this.bytes.length - this.at} remain (truncated or lying length)`,
      );
    }
    const start = this.at;
    this.at += n;
    return start;
  }
  private u8(): number {
    return this.view.getUint8(this.need(1, "an opcode argument"));
  }
  private u16(): number {
    return this.view.getUint16(this.need(2, "an opcode argument"), true);
  }
  private u32(): number {
    return this.view.getUint32(this.need(4, "an opcode argument"), true);
  }
  private i32(): number {
    return this.view.getInt32(this.need(4, "an opcode argument"), true);
  }
  private u64(): number {
    const lo = this.u32();
    const hi = this.u32();
    return hi * 4294967296 + lo;
  }
  private raw(n: number, what: string): Uint8Array {
    const start = this.need(n, what);
    return this.bytes.subarray(start, start + n);
  }
  private text(n: number, what: string): string {
    return textOf(this.raw(n, what));
  }
  private latin1(n: number, what: string): string {
    const b = this.raw(n, what);
    let out = "";
    // Short texts (module and class names, dict keys) char by char: no array made per call.
    if (b.length <= 64) {
      for (let k = 0; k < b.length; k++) out += String.fromCharCode(b[k] as number);
      return out;
    }
    for (let k = 0; k < b.length; k += 8192) {
      out += String.fromCharCode.apply(null, b.subarray(k, k + 8192) as unknown as number[]);
    }
    return out;
  }
  private line(): string {
    const end = this.bytes.indexOf(0x0a, this.at);
    if (end < 0) this.fail("a text argument with no end of line");
    const text = this.latin1(end - this.at, "a text argument");
    this.at += 1;
    return text;
  }

  private push(v: Value): undefined {
    if (this.stack.length >= MAX_STACK) this.fail(`more than ${MAX_STACK} values on the stack`);
    this.stack.push(v);
  }
  private pop(): Value {
    if (this.stack.length === 0 || this.stack.length <= (this.marks.at(-1) ?? -1)) {
      this.fail("an opcode pops an empty stack");
    }
    return this.stack.pop();
  }
  private top(): Value {
    if (this.stack.length === 0) this.fail("an opcode reads an empty stack");
    return this.stack[this.stack.length - 1];
  }
  /** The values since the last MARK, which is dropped. */
  private popMark(): Value[] {
    const mark = this.marks.pop();
    if (mark === undefined) this.fail("no MARK before this opcode");
    const items = this.stack.splice(mark);
    for (const item of items) this.data(item);
    return items;
  }
  /** A value about to be stored as data: a bare unlisted global is an error naming it. */
  private data(v: Value): Value {
    if (v instanceof GlobalRef && !isDataGlobal(v)) throw unlistedGlobal(v, "names");
    return v;
  }
  private memoPut(index: number): undefined {
    if (this.memo.size >= MAX_MEMO && !this.memo.has(index))
      this.fail(`more than ${MAX_MEMO} memo entries`);
    this.memo.set(index, this.top());
  }
  private memoGet(index: number): undefined {
    if (!this.memo.has(index)) this.fail(`memo entry ${index} read before it was written`);
    this.push(this.memo.get(index));
  }

  private long(bytes: Uint8Array): number | string {
    if (bytes.length === 0) return 0;
    let value = 0n;
    for (let k = bytes.length - 1; k >= 0; k--) value = (value << 8n) | BigInt(bytes[k] as number);
    if ((bytes[bytes.length - 1] as number) & 0x80) value -= 1n << BigInt(bytes.length * 8);
    const n = Number(value);
    // Beyond 2^53 a number would be silently rounded: the exact digits instead.
    return Number.isSafeInteger(n) ? n : value.toString();
  }
  private textInt(s: string): Value {
    const t = s.trim().replace(/L$/, "");
    if (t === "00") return false;
    if (t === "01") return true;
    if (!/^[-+]?\d+$/.test(t)) this.fail(`'${t}' is not an integer`);
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : BigInt(t).toString();
  }

  private appendTo(list: Value, items: readonly Value[]): undefined {
    if (!Array.isArray(list)) this.fail("APPEND to a value that is not a list");
    for (const item of items) list.push(item);
  }
  private setItems(dict: Value, items: readonly Value[]): undefined {
    if (typeof dict !== "object" || dict === null || Array.isArray(dict)) {
      this.fail("SETITEM on a value that is not a dict");
    }
    if (items.length % 2 !== 0) this.fail("SETITEMS with an odd number of values");
    for (let k = 0; k < items.length; k += 2) {
      setKey(dict as Record<string, unknown>, items[k], items[k + 1]);
    }
  }

  /** The byte after the last opcode read (after STOP, once `run` returns). */
  get end(): number {
    return this.at;
  }

  run(): Value {
    for (;;) {
      if (this.at >= this.bytes.length) this.fail("the pickle ends without STOP (truncated)");
      const op = this.u8();
      if (op === 0x2e) {
        // STOP
        return this.data(this.pop());
      }
      this.step(op);
    }
  }

  /** One opcode: the scalar and stack ones here, the others below; each case a line or two. */
  private step(op: number): undefined {
    switch (op) {
      case 0x80: // PROTO
        this.u8();
        return;
      case 0x95: // FRAME (a size hint only)
        this.u64();
        return;
      case 0x28: // MARK
        this.marks.push(this.stack.length);
        return;
      case 0x30: // POP
        if (this.marks.at(-1) === this.stack.length) this.marks.pop();
        else this.pop();
        return;
      case 0x31: // POP_MARK
        this.popMark();
        return;
      case 0x32: // DUP
        this.push(this.top());
        return;
      case 0x4e: // NONE
        return this.push(null);
      case 0x88: // NEWTRUE
        return this.push(true);
      case 0x89: // NEWFALSE
        return this.push(false);
      case 0x4a: // BININT
        return this.push(this.i32());
      case 0x4b: // BININT1
        return this.push(this.u8());
      case 0x4d: // BININT2
        return this.push(this.u16());
      case 0x8a: // LONG1
        return this.push(this.long(this.raw(this.u8(), "LONG1")));
      case 0x8b: // LONG4
        return this.push(this.long(this.raw(this.i32(), "LONG4")));
      case 0x49: // INT
      case 0x4c: // LONG
        return this.push(this.textInt(this.line()));
      case 0x47: // BINFLOAT
        return this.push(this.view.getFloat64(this.need(8, "BINFLOAT"), false));
      case 0x46: {
        // FLOAT
        const n = Number(this.line());
        return this.push(n);
      }
      case 0x58: // BINUNICODE
        return this.push(this.text(this.u32(), "BINUNICODE"));
      case 0x8c: // SHORT_BINUNICODE
        return this.push(this.text(this.u8(), "SHORT_BINUNICODE"));
      case 0x8d: // BINUNICODE8
        return this.push(this.text(this.u64(), "BINUNICODE8"));
      case 0x54: // BINSTRING (Python 2 str, read as latin-1 text)
        return this.push(this.latin1(this.i32(), "BINSTRING"));
      case 0x55: // SHORT_BINSTRING
        return this.push(this.latin1(this.u8(), "SHORT_BINSTRING"));
      case 0x42: // BINBYTES
        return this.push(this.raw(this.u32(), "BINBYTES").slice());
      case 0x43: // SHORT_BINBYTES
        return this.push(this.raw(this.u8(), "SHORT_BINBYTES").slice());
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        return this.push(this.raw(this.u64(), "BINBYTES8").slice());
      case 0x56: // UNICODE (raw-unicode-escape; read as its text)
        return this.push(this.line());
      default:
        return this.containerStep(op);
    }
  }

  /** Opcodes that build lists, tuples and dicts. */
  private containerStep(op: number): undefined {
    switch (op) {
      case 0x5d: // EMPTY_LIST
        return this.push([]);
      case 0x29: // EMPTY_TUPLE
        return this.push([]);
      case 0x7d: // EMPTY_DICT
        return this.push({});
      case 0x8f: // EMPTY_SET
        return this.push([]);
      case 0x6c: // LIST
      case 0x74: // TUPLE
      case 0x91: // FROZENSET
        return this.push(this.popMark());
      case 0x85: // TUPLE1
        return this.push([this.data(this.pop())]);
      case 0x86: {
        // TUPLE2
        const b = this.data(this.pop());
        return this.push([this.data(this.pop()), b]);
      }
      case 0x87: {
        // TUPLE3
        const c = this.data(this.pop());
        const b = this.data(this.pop());
        return this.push([this.data(this.pop()), b, c]);
      }
      case 0x64: {
        // DICT
        const dict = {};
        this.setItems(dict, this.popMark());
        return this.push(dict);
      }
      case 0x61: {
        // APPEND
        const item = this.data(this.pop());
        return this.appendTo(this.top(), [item]);
      }
      case 0x65: // APPENDS
      case 0x90: {
        // ADDITEMS
        const items = this.popMark();
        return this.appendTo(this.top(), items);
      }
      case 0x73: {
        // SETITEM
        const value = this.data(this.pop());
        const key = this.data(this.pop());
        return this.setItems(this.top(), [key, value]);
      }
      case 0x75: {
        // SETITEMS
        const items = this.popMark();
        return this.setItems(this.top(), items);
      }
      default:
        return this.objectStep(op);
    }
  }

  /** Opcodes of the memo, globals, calls, object state and storages. */
  private objectStep(op: number): undefined {
    switch (op) {
      case 0x70: // PUT
        return this.memoPut(Number(this.textInt(this.line())));
      case 0x71: // BINPUT
        return this.memoPut(this.u8());
      case 0x72: // LONG_BINPUT
        return this.memoPut(this.u32());
      case 0x94: // MEMOIZE
        return this.memoPut(this.memo.size);
      case 0x67: // GET
        return this.memoGet(Number(this.textInt(this.line())));
      case 0x68: // BINGET
        return this.memoGet(this.u8());
      case 0x6a: // LONG_BINGET
        return this.memoGet(this.u32());
      case 0x63: {
        // GLOBAL
        const module = this.line();
        return this.push(new GlobalRef(module, this.line()));
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = this.pop();
        const module = this.pop();
        if (typeof module !== "string" || typeof name !== "string")
          this.fail("STACK_GLOBAL of non-strings");
        return this.push(new GlobalRef(module, name));
      }
      case 0x52: {
        // REDUCE
        const args = this.pop();
        const fn = this.pop();
        return this.push(callGlobal(fn, args));
      }
      case 0x81: // NEWOBJ
      case 0x92: {
        // NEWOBJ_EX
        if (op === 0x92) this.pop(); // keyword arguments
        const args = this.pop();
        return this.push(this.newObject(this.pop(), args));
      }
      case 0x62: {
        // BUILD
        const state = this.data(this.pop());
        const target = this.pop();
        return this.push(buildState(target, state));
      }
      case 0x51: // BINPERSID
        return this.push(persistentStorage(this.pop()));
      case 0x50: // PERSID
        return this.fail("a text persistent id (PERSID): not a torch storage");
      default:
        return this.fail(
          `opcode 0x${op.toString(16)} is not one this reader runs (INST, OBJ, EXT and the like build objects by calling code)`,
        );
    }
  }

  private newObject(cls: Value, args: Value): Value {
    if (!(cls instanceof GlobalRef)) this.fail("NEWOBJ of something that is not a class");
    if (cls.module === "collections" && cls.name === "OrderedDict") return {};
    if (cls.module === "builtins" && (cls.name === "set" || cls.name === "frozenset")) return [];
    if (!isPlaceholderClass(cls)) throw unlistedGlobal(cls, "constructs");
    return placeholder(cls, Array.isArray(args) ? args : []);
  }
}

/** Globals that may sit in the data as they are: the storage classes and numpy's array type. */
function isDataGlobal(ref: GlobalRef): boolean {
  if (ref.module === "torch" && ref.name.endsWith("Storage")) return true;
  // SkyRL's batch class, the first argument of its `_rebuild_tensor_batch` (pickleGlobals.ts).
  if (isSkyrlBatchClass(ref)) return true;
  return /^numpy(\.core|\._core)?(\.multiarray)?$/.test(ref.module) && ref.name === "ndarray";
}

/** The value a pickle holds, read by the restricted machine; never runs anything it names. */
export function unpickle(bytes: Uint8Array): unknown {
  return new Machine(bytes).run();
}

/** The pickle starting at byte `start` of `bytes` (one of several in a row) and where it ends. */
export function unpickleAt(bytes: Uint8Array, start: number): { value: unknown; end: number } {
  const machine = new Machine(bytes, start);
  const value = machine.run();
  return { value, end: machine.end };
}
