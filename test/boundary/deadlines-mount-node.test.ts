// Issue 8's deadline matrix through the mount-node example, against a fake gateway in another process.
import { deadlineMatrix } from "./support/deadline-matrix.js"

deadlineMatrix("mount-node example")
