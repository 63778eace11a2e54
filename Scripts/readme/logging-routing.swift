// What README.md's log routing example takes as given.
import Logging
import ReduxKit
