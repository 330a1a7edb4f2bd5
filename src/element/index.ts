// @lazurio/buddy/element: `<buddy-sign-in>`, the person's card (C10, docs/element.md). Importing it
// defines the element where a browser has custom elements (a second import, or one under another
// bundle, leaves the first definition); on a server it defines nothing. Browser-only and alone: it
// imports only the browser client, which imports nothing (D49).
import { defineCard } from "./card.js"

export { changeEvent, defineCard } from "./card.js"
export type { Change, Problem, View } from "./view.js"
export type { Words } from "./words.js"
export { words } from "./words.js"

defineCard()
