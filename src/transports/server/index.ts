export { serve, type ServeOptions, type RunningServer } from './serve'
