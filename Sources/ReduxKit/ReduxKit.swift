// The umbrella module: `import ReduxKit` brings in every ReduxKit module.
@_exported public import ReduxCore
@_exported public import EntityTracking
@_exported public import Persistence
@_exported public import PersistenceSQLite
@_exported public import QueryCache
@_exported public import FeatureKit
