import { runConformance } from './suite'
import { interceptWay } from '../support/intercept-way'

// Every case of the suite, through the in-process hooks (nock + mock-socket), on https://us-west-1.hyper.test.
runConformance(interceptWay)
