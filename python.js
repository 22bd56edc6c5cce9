// `dsh-code-runtime-v8/python`: the Python runtime, as the default export a composition mounts;
// with what a durable run's bindings use (engine 'monty').
export { PythonCodeRuntime as default, PythonCodeRuntime, logTruncationMarker } from './lib/python/runtime.js'
export { resumption, suspend } from './lib/durable.js'
