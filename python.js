// `dsh-code-runtime-v8/python`: the Python runtime, as the default export a composition mounts.
export { PythonCodeRuntime as default, PythonCodeRuntime, logTruncationMarker } from './lib/python/runtime.js'
