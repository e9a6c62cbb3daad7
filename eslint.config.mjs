// `npm run lint` (with knip for unused exports, knip.json): typescript-eslint's recommended rules over
// the product (src/extension, src/webview), the tooling (src/tools) and the tests, plus import-x's
// no-cycle on the product. Rules are tuned to what the code already follows; each rule turned off
// says why.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import globals from "globals";
import ts from "typescript";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = import.meta.dirname;
const PRODUCT = ["src/extension", "src/webview"];

// import-x/no-cycle skips type-only imports and has no option to count them (its
// isOnlyImportingTypes checks), yet a circle of types is a circle too: the files cannot be
// understood or moved one at a time. This rule, product/no-type-cycle, reports what import-x
// leaves out: an import that closes a circle in the product's graph of all its imports
// (`import type`, `export type … from`, `import("…").T` included), unless import-x reports
// that import itself (a value import whose target leads back through value imports alone).
const productGraph = (() => {
  const cache = new Map(); // file -> { mtimeMs, edges: [{ target, typeOnly }] }
  let built; // { signature, fullScc, valueScc, edges }
  const tsFiles = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  const resolveSpecifier = (from, specifier, files) => {
    if (!specifier.startsWith(".")) return undefined;
    const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
    return [base, `${base}.ts`, join(base, "index.ts")].find((candidate) => files.has(candidate));
  };
  const importsOf = (file, files) => {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    const edges = [];
    const add = (specifier, typeOnly) => {
      const target = resolveSpecifier(file, specifier, files);
      if (target && target !== file) edges.push({ target, typeOnly });
    };
    const visit = (node) => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const clause = node.importClause;
        const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
        const typeOnly = !!clause && (clause.isTypeOnly || (!clause.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
        add(node.moduleSpecifier.text, typeOnly);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
        add(node.moduleSpecifier.text, node.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
        add(node.argument.literal.text, true);
      } else if (
        ts.isCallExpression(node) &&
        (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
        node.arguments.length === 1 &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return edges;
  };
  // Tarjan's strongly connected components: file -> component id.
  const components = (files, edgesOf) => {
    const index = new Map(), low = new Map(), component = new Map(), stack = [], onStack = new Set();
    let next = 0;
    const connect = (v) => {
      index.set(v, next); low.set(v, next); next++;
      stack.push(v); onStack.add(v);
      for (const w of edgesOf(v)) {
        if (!index.has(w)) { connect(w); low.set(v, Math.min(low.get(v), low.get(w))); }
        else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
      }
      if (low.get(v) === index.get(v)) {
        let w;
        do { w = stack.pop(); onStack.delete(w); component.set(w, v); } while (w !== v);
      }
    };
    for (const f of files) if (!index.has(f)) connect(f);
    return component;
  };
  return () => {
    const files = new Set(PRODUCT.flatMap((dir) => tsFiles(join(ROOT, dir))));
    const stamps = [...files].map((f) => [f, statSync(f).mtimeMs]);
    const signature = stamps.map(([f, m]) => `${f}:${m}`).join("\n");
    if (built?.signature === signature) return built;
    const edges = new Map();
    for (const [f, mtimeMs] of stamps) {
      let entry = cache.get(f);
      if (entry?.mtimeMs !== mtimeMs) cache.set(f, (entry = { mtimeMs, edges: importsOf(f, files) }));
      edges.set(f, entry.edges);
    }
    const fullScc = components(files, (f) => edges.get(f).map((e) => e.target));
    const valueScc = components(files, (f) => edges.get(f).filter((e) => !e.typeOnly).map((e) => e.target));
    built = { signature, fullScc, valueScc, edges };
    return built;
  };
})();

// A shortest way back from `to` to `from` inside their component, for the message.
function cyclePath(graph, from, to) {
  const scc = graph.fullScc.get(from);
  const previous = new Map([[to, undefined]]);
  const queue = [to];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v === from) break;
    for (const { target } of graph.edges.get(v)) {
      if (graph.fullScc.get(target) === scc && !previous.has(target)) { previous.set(target, v); queue.push(target); }
    }
  }
  const path = [];
  for (let v = from; v !== undefined; v = previous.get(v)) path.unshift(relative(ROOT, v));
  return [relative(ROOT, from), ...path].join(" -> ");
}

const noTypeCycle = {
  meta: { type: "problem", messages: { cycle: "Import cycle (through a type-only import): {{path}}" }, schema: [] },
  create(context) {
    const file = context.physicalFilename;
    const graph = productGraph();
    if (!graph.fullScc.has(file)) return {};
    const reported = new Set();
    const check = (node, specifier, typeOnly) => {
      if (typeof specifier !== "string" || !specifier.startsWith(".")) return;
      const edge = graph.edges.get(file).find((e) => resolve(dirname(file), specifier.replace(/\.js$/, "")) === e.target.replace(/(\/index)?\.ts$/, "") || e.target === resolve(dirname(file), specifier));
      if (!edge || reported.has(edge.target) || graph.fullScc.get(edge.target) !== graph.fullScc.get(file)) return;
      // import-x/no-cycle reports a value import whose target leads back through value imports.
      if (!typeOnly && graph.valueScc.get(edge.target) === graph.valueScc.get(file)) return;
      reported.add(edge.target);
      context.report({ node, messageId: "cycle", data: { path: cyclePath(graph, file, edge.target) } });
    };
    const allTypes = (specifiers) => specifiers.length > 0 && specifiers.every((s) => s.importKind === "type" || s.exportKind === "type");
    return {
      ImportDeclaration: (node) => check(node, node.source.value, node.importKind === "type" || allTypes(node.specifiers)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, node.exportKind === "type" || allTypes(node.specifiers)),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === "type"),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source.value, false),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value, true),
    };
  },
};

export default tseslint.config(
  {
    ignores: ["out/**", "media/dist/**", "node_modules/**", ".cache/**", "native/**", "models/**", "**/*.js", "**/*.mjs", "**/*.cjs"],
  },
  {
    files: ["src/**/*.ts", "test/**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // "No `any` without a reason": an eslint-disable comment with the reason allows one.
      "@typescript-eslint/no-explicit-any": "error",
      // node:test's test(), describe() and it() return promises the runner awaits itself.
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "it", "describe", "suite", "before", "after", "beforeEach", "afterEach"] }] },
      ],
      // The code's convention for a deliberately unused binding: a leading underscore.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // A caught `unknown` is passed on as it is (rejecting with what was thrown), as a rethrow
      // would, and so is an AbortSignal's reason (typed `any`).
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true, allowThrowingAny: true }],
      // Off: the code takes methods as values on purpose: it saves built-ins and originals to wrap
      // them and calls them back with .call(this, …) (template render guards, speculative state,
      // the test doubles), or picks one of two loggers' methods to .call. TS's `this` types check these.
      "@typescript-eslint/unbound-method": "off",
      // Off: the code marks an indexed read it knows to be in range with `!` (`lines[i]!`), as
      // noUncheckedIndexedAccess would ask; 199 of the rule's 253 findings are these. (Its fixer
      // also broke a cast that narrows a string to a union, in webview/protocol/entry-guards.ts.)
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      // Off: `async` without an await is deliberate here (83 places): implementations of a
      // Promise-returning interface (Engine.createState, KvState, the ports) and the tests'
      // doubles of one stay async, so a throw is a rejection, as in the real implementations.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // Off in tests: they read JSON files and records (JSON.parse's `any`) and check them field by
      // field; the assertions are the type check.
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      // Test servers take async request handlers (node:http ignores the promise; a failure fails the request).
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
    },
  },
  {
    // The product: no import cycles, type-only imports included (a circle of types is a circle too).
    files: ["src/extension/**/*.ts", "src/webview/**/*.ts"],
    plugins: { "import-x": importX, product: { rules: { "no-type-cycle": noTypeCycle } } },
    settings: {
      // Without these import-x reads no .ts file's imports, and finds no cycle.
      "import-x/extensions": [".ts"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true, allowUnsafeDynamicCyclicDependency: false }],
      "product/no-type-cycle": "error",
    },
  },
);
