// NB: the conflict model (`PersistenceConflict`, `ConflictResolution`, `RemoteChanges`,
// `VersionBook`) is Persistence's, shared with PersistenceSQLite: an app that imports this
// module names them without a second import, as it did when they were declared here.
@_exported public import Persistence
