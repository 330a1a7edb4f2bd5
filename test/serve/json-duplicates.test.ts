// A member named twice in one JSON object, found where JSON.parse keeps the last silently
// (src/serve/json-duplicates.ts): by its decoded name, at its second occurrence, in nested objects
// too, and never for the same name in two objects, in an array, or inside a string's value.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { firstDuplicate } from "../../src/serve/json-duplicates.js"

describe("a duplicate member", () => {
  it("is found by its name at its second occurrence", () => {
    const text = `{"locale":"en", "locale":"cs"}`
    expect(firstDuplicate(text)).toStrictEqual(Option.some({ name: "locale", offset: text.lastIndexOf("\"locale\"") }))
  })

  it("is found by its decoded name, as JSON.parse keys it", () => {
    const text = `{"a":1,"\\u0061":2}`
    expect(firstDuplicate(text)).toStrictEqual(Option.some({ name: "a", offset: 7 }))
  })

  it("is found in a nested object, and after strings holding quotes, braces and commas", () => {
    const text = `{"x":"a\\"},{\\\\","o":{"k":[1,{"k":2}],"k":3}}`
    expect(firstDuplicate(text)).toStrictEqual(Option.some({ name: "k", offset: text.lastIndexOf("\"k\"") }))
  })

  it("is none for the same name in sibling objects, values that repeat a name, and arrays of strings", () => {
    for (
      const text of [
        `{"a":{"k":1},"b":{"k":2}}`,
        `{"a":"a","b":"a"}`,
        `["a","a"]`,
        `{"a":["a","a"],"b":1}`,
        `[{"a":1},{"a":1}]`,
        `{}`,
        `"a"`
      ]
    ) {
      expect([text, firstDuplicate(text)]).toStrictEqual([text, Option.none()])
    }
  })

  it("is judged in the object it is in once an inner object or array has closed", () => {
    expect(firstDuplicate(`{"a":{"k":1},"k":2}`)).toStrictEqual(Option.none())
    const afterArray = `{"a":[1],"b":1,"b":2}`
    expect(firstDuplicate(afterArray)).toStrictEqual(
      Option.some({ name: "b", offset: afterArray.lastIndexOf("\"b\"") })
    )
    const afterObject = `{"a":{"x":1},"b":1,"b":2}`
    expect(firstDuplicate(afterObject)).toStrictEqual(
      Option.some({ name: "b", offset: afterObject.lastIndexOf("\"b\"") })
    )
    // A value is no name: the same text as a name and as a value is no duplicate.
    expect(firstDuplicate(`{"a":"a"}`)).toStrictEqual(Option.none())
    expect(firstDuplicate(`{"a":"b","b":"c"}`)).toStrictEqual(Option.none())
  })

  it("is the first one met, not a later one", () => {
    const text = `{"b":1,"a":1,"a":2,"b":2}`
    expect(firstDuplicate(text)).toStrictEqual(Option.some({ name: "a", offset: 13 }))
  })
})
