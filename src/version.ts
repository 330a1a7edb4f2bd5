// The version the CLI and the OpenAPI document report; kept equal to package.json's by a test.
export const buddyVersion = "0.1.0"
