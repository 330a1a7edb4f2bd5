// Issue 8's deadline matrix through the mount-effect example, against a fake gateway in another process.
import { deadlineMatrix } from "./support/deadline-matrix.js"

deadlineMatrix("mount-effect example")
