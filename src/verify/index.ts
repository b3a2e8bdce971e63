import '../runtime/node-version' // first: fails at once on a Node older than 22
export { verify, verifyPlan, judge, type VerifyOptions, type VerifyReport, type CaseResult, type Verdict } from './run'
export { formatCase, formatSummary } from './report'
export { DELIBERATE, type Deliberate } from './deliberate'
export { catalogue, type Case } from './cases'
