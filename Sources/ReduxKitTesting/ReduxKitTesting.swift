// The testing modules of the umbrella's packages, for a test target beside an app that
// depends on `ReduxKit`: `import ReduxKitTesting` brings `TestStore` and the test clocks,
// recorders and gates (ReduxCoreTesting), and `FeatureTestStore` (FeatureKitTesting).
@_exported public import FeatureKitTesting
@_exported public import ReduxCoreTesting
