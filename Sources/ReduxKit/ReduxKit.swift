@_exported public import DevTools
@_exported public import EntityQueries
@_exported public import EntityTracking
@_exported public import FeatureKit
@_exported public import Persistence
@_exported public import PersistenceSQLite
@_exported public import PersistenceSync
@_exported public import QueryCache
// The umbrella module: `import ReduxKit` brings in every ReduxKit module.
@_exported public import ReduxCore
