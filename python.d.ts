import { PythonCodeRuntime } from './index.js'
export { PythonCodeRuntime, type PythonConfig, type PythonDurableOutcome, logTruncationMarker, resumption, suspend } from './index.js'
export default PythonCodeRuntime
