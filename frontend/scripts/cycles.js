// Fails when modules of `src` import each other in a cycle, type-only imports included:
// a cycle of types is still two modules that cannot be understood, moved or tested apart.
// Imports are resolved as `tsc -p frontend` resolves them; `npm run lint` runs this.
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src");

function readProject() {
  const configPath = join(root, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error !== undefined) {
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  }
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root);
}

/** Every module of `src` with the modules of `src` it imports, in import order. */
function importGraph({ fileNames, options }) {
  const host = ts.createCompilerHost(options);
  const graph = new Map();
  for (const file of fileNames) {
    const text = ts.sys.readFile(file) ?? "";
    // Static imports and re-exports, `import type` and dynamic `import()` alike.
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = [];
    for (const { fileName: specifier } of importedFiles) {
      const resolved = ts.resolveModuleName(specifier, file, options, host).resolvedModule;
      const target = resolved?.resolvedFileName;
      if (
        target !== undefined &&
        !resolved.isExternalLibraryImport &&
        !target.endsWith(".d.ts") &&
        !relative(source, target).startsWith("..") &&
        !targets.includes(target)
      ) {
        targets.push(target);
      }
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself. */
function cycles(graph) {
  const index = new Map();
  const lowLink = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    lowLink.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowLink.set(file, Math.min(lowLink.get(file), lowLink.get(target)));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file), index.get(target)));
      }
    }
    if (lowLink.get(file) === index.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) {
        found.push(component.sort());
      }
    }
  };
  for (const file of [...graph.keys()].sort()) {
    if (!index.has(file)) {
      visit(file);
    }
  }
  return found;
}

const graph = importGraph(readProject());
const found = cycles(graph);
if (found.length > 0) {
  console.error(`Import cycles in ${relative(process.cwd(), source)}:`);
  for (const component of found) {
    const members = new Set(component);
    console.error(`- ${component.map((file) => relative(source, file)).join(", ")}`);
    for (const file of component) {
      for (const target of graph.get(file) ?? []) {
        if (members.has(target)) {
          console.error(`    ${relative(source, file)} imports ${relative(source, target)}`);
        }
      }
    }
  }
  process.exit(1);
}
console.log(`No import cycles among ${graph.size} modules.`);
