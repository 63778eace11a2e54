/// ViewFeature's names, for code written against ViewFeature. FeatureKit's own names differ where
/// ReduxCore already owns the plain one (`Store`).
public enum ViewFeature {
  public typealias Store<Feature: StoreFeature> = FeatureStore<Feature>
}

/// DLVVM's names, for code written against DLVVM. ReduxCore owns `Reducer`, so FeatureKit's
/// reducer protocol is ``FeatureReducer``.
public enum DLVVM {
  public typealias Reducer = FeatureReducer
}
