/// ViewFeature's names, for code written against ViewFeature. FeatureKit's own names differ where
/// ReduxCore already owns the plain one (`Store`).
public enum ViewFeature {
  public typealias Store<Feature: StoreFeature> = FeatureStore<Feature>
}
