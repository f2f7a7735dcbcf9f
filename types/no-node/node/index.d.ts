// Node's types, resolved to nothing. apache-arrow's declaration files say `/// <reference types="node" />`, which
// would put Node's globals (process, Buffer, require) into every program that imports Arrow; the runtime configs
// of code that never runs in Node (tsconfig.core/page/worker.json) resolve that reference here instead, so a use of
// a Node API there is a type error (docs/decisions/086).
export {};
