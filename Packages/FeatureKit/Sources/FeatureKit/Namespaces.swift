/// ViewFeature's names, for code written against ViewFeature. FeatureKit's own names differ where
/// ReduxCore already owns the plain one (`Store`).
public enum ViewFeature {
  /// ViewFeature's `Store`: ``FeatureStore``.
  public typealias Store<Feature: StoreFeature> = FeatureStore<Feature>
}

/// DLVVM's names, for code written against DLVVM. ReduxCore owns `Reducer`, so FeatureKit's
/// reducer protocol is ``FeatureReducer``.
public enum DLVVM {
  /// DLVVM's `Reducer`: ``FeatureReducer``.
  public typealias Reducer = FeatureReducer
}
