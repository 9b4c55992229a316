/** `keyspread/store/testing`: the behavioural suite every `Store` passes, for third-party stores too. */
export { describeStoreBehaviour } from "../store/behaviour/suite.js";
export type { StoreAssertion, StoreTestApi } from "../store/behaviour/test-api.js";
export type { StoreBehaviourOptions, StoreSupports } from "../store/behaviour/test-common.js";
