import { runConformance } from './suite'
import { interceptWay } from '../support/intercept-way'

// Every case of the suite, through the in-process hooks (fetch/http and our own WebSocket), on https://us-west-1.hyper.test.
runConformance(interceptWay)
