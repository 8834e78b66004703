// Generates `src/api/generated/wire.ts` from `wire.schema.json`, which the server writes from
// its pydantic models (`manage.py wire_schema`, backend/config/wire.py): the browser's types
// of everything both websockets and the run API send. `--check` fails when the committed
// file is not what the schema gives (run `make wire`).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { compile } from "json-schema-to-typescript";
import prettier from "prettier";
import ts from "typescript";

const here = dirname(fileURLToPath(import.meta.url));
const generated = join(here, "../src/api/generated");
const schemaPath = join(generated, "wire.schema.json");
const outputPath = join(generated, "wire.ts");

/** Fields the server keeps as plain JSON are typed (`tsType`) by what the browser reads them as. */
const EXTERNAL_TYPES = {
  Edit: "../../graph/edits",
  JsonObject: "../../graph/json",
  LivePlan: "../../graph/liveplan",
  PlanDelta: "../../graph/liveplan",
  StreamGraphDocument: "../../graph/streamgraph",
  ServerDiagnostic: "../../graph/streamgraph",
};

/** JSON Schema 2020-12 tuples (`prefixItems`, as pydantic writes them) in the older form
 * json-schema-to-typescript reads. */
function withTupleItems(schema) {
  if (Array.isArray(schema)) {
    return schema.map(withTupleItems);
  }
  if (schema === null || typeof schema !== "object") {
    return schema;
  }
  const result = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, withTupleItems(value)]),
  );
  if (Array.isArray(result.prefixItems)) {
    result.items = result.prefixItems;
    result.additionalItems = false;
    delete result.prefixItems;
  }
  return result;
}

/** The generated declarations with every property, index signature, list and tuple
 * read-only: the app never changes what it received. */
function readOnly(text) {
  const source = ts.createSourceFile("wire.ts", text, ts.ScriptTarget.Latest, true);
  const readonlyModifier = () => [ts.factory.createModifier(ts.SyntaxKind.ReadonlyKeyword)];
  const visit = (node) => {
    const child = ts.visitEachChild(node, visit, undefined);
    if (ts.isPropertySignature(child)) {
      return ts.factory.updatePropertySignature(
        child,
        readonlyModifier(),
        child.name,
        child.questionToken,
        child.type,
      );
    }
    if (ts.isIndexSignatureDeclaration(child)) {
      return ts.factory.updateIndexSignature(
        child,
        readonlyModifier(),
        child.parameters,
        child.type,
      );
    }
    if (ts.isMappedTypeNode(child)) {
      return ts.factory.updateMappedTypeNode(
        child,
        ts.factory.createToken(ts.SyntaxKind.ReadonlyKeyword),
        child.typeParameter,
        child.nameType,
        child.questionToken,
        child.type,
        child.members,
      );
    }
    if (ts.isArrayTypeNode(child)) {
      const element = ts.isTypeOperatorNode(child.elementType)
        ? ts.factory.createParenthesizedType(child.elementType)
        : child.elementType;
      return ts.factory.createTypeOperatorNode(
        ts.SyntaxKind.ReadonlyKeyword,
        ts.factory.updateArrayTypeNode(child, element),
      );
    }
    if (ts.isTupleTypeNode(child)) {
      return ts.factory.createTypeOperatorNode(ts.SyntaxKind.ReadonlyKeyword, child);
    }
    return child;
  };
  const result = ts.visitNode(source, visit);
  return ts.createPrinter().printFile(result);
}

function screamingSnake(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** Runtime lists the browser checks received values against: every value of each string
 * enum, and every `type` of each message union, in the server's order. */
function constants(defs) {
  const lines = [];
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "string" && Array.isArray(def.enum)) {
      lines.push(
        `/** Every ${name}, in the server's order. */`,
        `export const ${screamingSnake(name)}_VALUES = ${JSON.stringify(def.enum)} as const satisfies readonly ${name}[];`,
      );
    }
    const members = def.oneOf ?? def.anyOf;
    if (def.discriminator?.propertyName === "type" && Array.isArray(members)) {
      const types = members.map((member) => {
        const target = defs[member.$ref.replace("#/$defs/", "")];
        return target.properties.type.const;
      });
      lines.push(
        `/** The \`type\` of every ${name}. */`,
        `export const ${screamingSnake(name)}_TYPES = ${JSON.stringify(types)} as const satisfies readonly ${name}["type"][];`,
      );
    }
  }
  return lines.join("\n");
}

async function generate() {
  const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  const defs = schema.$defs;
  const types = await compile(withTupleItems(schema), schema.title, {
    additionalProperties: false,
    bannerComment: "",
    format: false,
    maxItems: -1,
    strictIndexSignatures: true,
    unreachableDefinitions: true,
  });
  const used = Object.keys(EXTERNAL_TYPES).filter((name) =>
    new RegExp(`\\b${name}\\b`).test(types),
  );
  const imports = used.map((name) => `import type { ${name} } from "${EXTERNAL_TYPES[name]}";`);
  const text = [
    "// Generated by frontend/scripts/wire.js from wire.schema.json (backend/config/wire.py):",
    "// do not edit. `make wire` writes it again.",
    ...imports,
    "",
    // json-schema-to-typescript's notes on where each type was referenced say nothing here.
    readOnly(types).replace(
      /\n \*\n \* This interface was referenced by[^*]*\*\/|\/\*\*\n \* This interface was referenced by[^*]*\*\/\n/g,
      (match) => (match.startsWith("\n") ? "\n */" : ""),
    ),
    constants(defs),
    "",
  ].join("\n");
  const options = (await prettier.resolveConfig(outputPath)) ?? {};
  return prettier.format(text, { ...options, filepath: outputPath });
}

const text = await generate();
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(outputPath, "utf8");
  } catch {
    // missing: stale
  }
  if (current !== text) {
    console.error(
      "frontend/src/api/generated/wire.ts is not what wire.schema.json gives: run `make wire`",
    );
    process.exit(1);
  }
} else {
  writeFileSync(outputPath, text);
}
