// What README.md's index example takes as given.
import PersistenceSQLite
