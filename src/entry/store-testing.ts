/** `keyspread/store/testing`: the behavioural suite every `Store` passes, for third-party stores too. */

export type { StoreAssertion, StoreTestApi } from "../store/behaviour/harness/test-api.js";
export type { StoreBehaviourOptions, StoreSupports } from "../store/behaviour/harness/test-common.js";
export { describeStoreBehaviour } from "../store/behaviour/suite.js";
