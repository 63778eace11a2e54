// NB: every `.run` task and `Procedure` receives ReduxCore's `Send`, and stores take its
// `TaskManager`: a FeatureKit user needs those names without a second import.
@_exported public import ReduxCore
