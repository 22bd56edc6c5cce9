import { PythonCodeRuntime } from './index.js'
export { PythonCodeRuntime, type PythonConfig, logTruncationMarker } from './index.js'
export default PythonCodeRuntime
