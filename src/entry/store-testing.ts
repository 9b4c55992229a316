/** `keyspread/store/testing`: the behavioural suite every `Store` passes, for third-party stores too. */
export {
  describeStoreBehaviour,
  type StoreAssertion,
  type StoreBehaviourOptions,
  type StoreTestApi,
} from "../store/behaviour-suite.js";
