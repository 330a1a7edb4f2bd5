// Lint: typescript-eslint's recommended rules plus Effect's own dprint formatting (the style
// Effect's maintainers write in), and the project's bans (no `any`, no try/catch in src).
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "reports/**", ".stryker-tmp/**"] },
  ...tseslint.configs.recommended,
  {
    plugins: { "@effect": effect },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      // Data.TaggedEnum spells a variant without fields as `{}`.
      "@typescript-eslint/no-empty-object-type": ["error", { allowObjectTypes: "always" }]
    }
  },
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "TryStatement",
          message: "Use Effect.try / Effect.tryPromise, not try/catch."
        },
        { selector: "ThrowStatement", message: "Fail with a tagged error, do not throw." },
        {
          // A dependency's private fields (Node's `_httpMessage`, `_handle`, ...) change without notice;
          // Effect's `_tag` is its public discriminant.
          selector: "MemberExpression[property.name=/^_(?!tag$)[a-zA-Z]/]",
          message: "Do not read a dependency's private field; keep what you need yourself."
        },
        {
          selector: "CallExpression[callee.object.name='Reflect'] > Literal[value=/^_[a-zA-Z]/]",
          message: "Do not read a dependency's private field through Reflect; keep what you need yourself."
        }
      ]
    }
  }
)
