// Issue 8's deadline matrix through the web handler, against a fake gateway in another process.
import { deadlineMatrix } from "./support/deadline-matrix.js"

deadlineMatrix("web handler")
