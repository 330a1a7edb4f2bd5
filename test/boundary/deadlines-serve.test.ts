// Issue 8's deadline matrix through the buddy serve, against a fake gateway in another process.
import { deadlineMatrix } from "./support/deadline-matrix.js"

deadlineMatrix("buddy serve")
