// Validates a SARIF log (stdin) against the SARIF 2.1.0 schema that
// @microsoft/jest-sarif ships (lib/schemas/sarif-2.1.0-rtm.5.json), with the ajv that
// package uses. Prints "valid" and exits 0, or prints each error and exits 1.
import { createRequire } from "module";
import { readFileSync } from "fs";

const require = createRequire(import.meta.url);
const sarifPackage = require.resolve("@microsoft/jest-sarif/package.json");
const fromSarif = createRequire(sarifPackage);
const Ajv = fromSarif("ajv");
const schema = JSON.parse(
  readFileSync(new URL("lib/schemas/sarif-2.1.0-rtm.5.json", "file://" + sarifPackage), "utf8"),
);
const log = JSON.parse(readFileSync(0, "utf8"));
// As jest-sarif builds its validator: the schema is draft-04.
const ajv = new Ajv({ allErrors: true, schemaId: "auto", validateSchema: false });
ajv.addMetaSchema(fromSarif("ajv/lib/refs/json-schema-draft-04.json"));
const validate = ajv.compile(schema);
if (validate(log)) {
  console.log("valid");
} else {
  for (const error of validate.errors) console.log(JSON.stringify(error));
  process.exit(1);
}
