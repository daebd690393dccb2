/**
 * The released-API contract: every name each public entry (package.json "exports") exports,
 * with its kind, and the public members of its classes, interfaces and object type aliases
 * (`{ … }`, `{ … } & Other`), in etc/api-report.json.
 *
 *   npm run api-report     # rewrites etc/api-report.json from the entries' sources
 *
 * `test/unit/api-report.test.ts` fails when an export or a member appears, disappears or
 * changes without the report being updated, so a change of the public surface is a reviewed diff.
 *
 * A member is a key `Class.member` (`Class.static member` for a static one) beside its class,
 * its value the kind and the signature as the source writes it (comments dropped, whitespace
 * collapsed, a parameter with a default shown as optional), `deprecated` first when it is:
 *
 *   "ThreadsClient": "class",
 *   "ThreadsClient.state": "method (options: ThreadTarget): Promise<ThreadView>",
 *   "AgentOptions.maxTurns": "optional property: number",
 *
 * Public means what the API reference (TypeDoc) shows: not `private`, `protected` or `#private`,
 * no name starting with `_`, nothing tagged `@internal`. A class's own members are listed; what
 * it inherits is listed on its base, which the class's kind names (`class extends Base<F>`).
 *
 * Every type of the package's own that a public signature names must be exported by some
 * entry, or a user could not name what they pass or get back (and the API reference would
 * link nowhere): `npm run api-report` refuses to write a report while one is not, naming it
 * and the signatures that name it, and the unit test fails the same way.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));
export const reportPath = join(root, "etc/api-report.json");

/** Entry name (`durable-agents/worker`) → its source file, from package.json "exports". */
export function publicEntries(): Map<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; exports: Record<string, { types: string }> };
  return new Map(
    Object.entries(pkg.exports).map(([subpath, entry]) => [
      subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`,
      join(root, entry.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts")),
    ]),
  );
}

const KINDS: [ts.SymbolFlags, string][] = [
  [ts.SymbolFlags.Class, "class"],
  [ts.SymbolFlags.Function, "function"],
  [ts.SymbolFlags.Enum, "enum"],
  [ts.SymbolFlags.Variable, "const"],
  [ts.SymbolFlags.Interface, "interface"],
  [ts.SymbolFlags.TypeAlias, "type"],
  [ts.SymbolFlags.Module, "namespace"],
];

/** Entry → name → what it is: `Name` → its kind, `Name.member` → the member's kind and signature. */
export type ApiReport = Record<string, Record<string, string>>;

const printer = ts.createPrinter({ removeComments: true, omitTrailingSemicolon: true });

/** A node as the source writes it, on one line: no comments, whitespace collapsed, `{ a: T }` without the printer's `;`. */
function print(node: ts.Node, source: ts.SourceFile): string {
  return oneLine(printer.printNode(ts.EmitHint.Unspecified, node, source));
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").replace(/; }/g, " }").trim();

/**
 * A type the source leaves to inference, as the checker names it, without the
 * `import("/absolute/path")` qualifiers it adds for names out of scope (they would make the
 * report differ from one checkout to the next).
 */
function inferred(type: ts.Type, at: ts.Node, checker: ts.TypeChecker): string {
  return oneLine(checker.typeToString(type, at, ts.TypeFormatFlags.NoTruncation).replace(/import\("[^"]*"\)\./g, ""));
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
const hasTag = (node: ts.Node, tag: string) => ts.getJSDocTags(node).some((t) => t.tagName.text === tag);

/** `(a: string, b?: number): R`, with type parameters; a default is shown as `?`, an unwritten type as the checker infers it. */
function signatureText(decl: ts.SignatureDeclaration, source: ts.SourceFile, checker: ts.TypeChecker): string {
  const typeParams = decl.typeParameters?.length ? `<${decl.typeParameters.map((p) => print(p, source)).join(", ")}>` : "";
  const params = decl.parameters.map((p) => {
    const name = `${p.dotDotDotToken ? "..." : ""}${print(p.name, source)}${p.questionToken || p.initializer ? "?" : ""}`;
    const type = p.type ? print(p.type, source) : inferred(checker.getTypeAtLocation(p), p, checker);
    return `${name}: ${type}`;
  });
  let returns = "";
  if (decl.type) returns = `: ${print(decl.type, source)}`;
  else if (!ts.isConstructorDeclaration(decl) && !ts.isConstructSignatureDeclaration(decl) && !ts.isSetAccessorDeclaration(decl)) {
    const signature = checker.getSignatureFromDeclaration(decl);
    if (signature) returns = `: ${inferred(checker.getReturnTypeOfSignature(signature), decl, checker)}`;
  }
  return `${typeParams}(${params.join(", ")})${returns}`;
}

function typeText(decl: ts.PropertyDeclaration | ts.PropertySignature, source: ts.SourceFile, checker: ts.TypeChecker): string {
  return decl.type ? print(decl.type, source) : inferred(checker.getTypeAtLocation(decl), decl, checker);
}

/** The name a member is listed under, or undefined for one that is not public. */
function memberName(member: ts.ClassElement | ts.TypeElement, source: ts.SourceFile): string | undefined {
  if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member)) return undefined;
  if (hasModifier(member, ts.SyntaxKind.PrivateKeyword) || hasModifier(member, ts.SyntaxKind.ProtectedKeyword)) return undefined;
  if (hasTag(member, "internal")) return undefined;
  if (ts.isConstructorDeclaration(member)) return "constructor";
  const prefix = hasModifier(member, ts.SyntaxKind.StaticKeyword) ? "static " : "";
  if (ts.isCallSignatureDeclaration(member)) return "(call)";
  if (ts.isConstructSignatureDeclaration(member)) return "(new)";
  if (ts.isIndexSignatureDeclaration(member)) return `[${print(member.parameters[0]!, source)}]`;
  const name = member.name;
  if (!name || ts.isPrivateIdentifier(name)) return undefined;
  const text = ts.isComputedPropertyName(name) ? print(name, source) : ts.isStringLiteral(name) ? name.text : print(name, source);
  return text.startsWith("_") ? undefined : prefix + text;
}

/** A member's kind and signature: `method (…): R`, `readonly property: T`, `getter: T`, … */
function memberText(member: ts.ClassElement | ts.TypeElement, source: ts.SourceFile, checker: ts.TypeChecker): string {
  const modifiers = [
    hasTag(member, "deprecated") ? "deprecated" : "",
    hasModifier(member, ts.SyntaxKind.AbstractKeyword) ? "abstract" : "",
    hasModifier(member, ts.SyntaxKind.ReadonlyKeyword) ? "readonly" : "",
    "questionToken" in member && member.questionToken ? "optional" : "",
  ].filter(Boolean);
  const kind = (name: string) => [...modifiers, name].join(" ");
  if (ts.isPropertyDeclaration(member) || ts.isPropertySignature(member)) return `${kind("property")}: ${typeText(member, source, checker)}`;
  if (ts.isGetAccessorDeclaration(member)) return `${kind("getter")}: ${signatureText(member, source, checker).replace(/^\(\): /, "")}`;
  if (ts.isSetAccessorDeclaration(member)) return `${kind("setter")} ${signatureText(member, source, checker)}`;
  if (ts.isIndexSignatureDeclaration(member)) return `${kind("index")}: ${print(member.type, source)}`;
  if (ts.isConstructorDeclaration(member)) return `constructor ${signatureText(member, source, checker)}`;
  if (ts.isCallSignatureDeclaration(member)) return `call ${signatureText(member, source, checker)}`;
  if (ts.isConstructSignatureDeclaration(member)) return `new ${signatureText(member, source, checker)}`;
  if (ts.isMethodDeclaration(member) || ts.isMethodSignature(member)) return `${kind("method")} ${signatureText(member, source, checker)}`;
  return kind(ts.SyntaxKind[member.kind]);
}

/** `extends Base<F> implements Contract`, as written, or "". */
function heritage(decl: ts.ClassDeclaration | ts.InterfaceDeclaration, source: ts.SourceFile): string {
  return (decl.heritageClauses ?? []).map((clause) => ` ${print(clause, source)}`).join("");
}

/** A type alias's object literals: all of `{ a: T }`, the literal parts of `{ a: T } & Caller`. */
function literalParts(decl: ts.TypeAliasDeclaration): ts.TypeLiteralNode[] {
  if (ts.isTypeLiteralNode(decl.type)) return [decl.type];
  if (ts.isIntersectionTypeNode(decl.type)) return decl.type.types.filter(ts.isTypeLiteralNode);
  return [];
}

/** What follows a class's, interface's or object type's kind: its heritage, or an alias's shape with `{ … }` for the literals listed member by member. */
function shapeText(decl: ts.Declaration): string {
  const source = decl.getSourceFile();
  if (ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl)) return heritage(decl, source);
  if (ts.isTypeAliasDeclaration(decl) && ts.isIntersectionTypeNode(decl.type) && literalParts(decl).length > 0) {
    return ` = ${decl.type.types.map((part) => (ts.isTypeLiteralNode(part) ? "{ … }" : print(part, source))).join(" & ")}`;
  }
  return "";
}

/** The member lists of a class, an interface (every declaration of it) or an object type alias. */
function memberLists(symbol: ts.Symbol): { members: readonly (ts.ClassElement | ts.TypeElement)[]; source: ts.SourceFile }[] {
  return (symbol.declarations ?? []).flatMap((decl) => {
    const source = decl.getSourceFile();
    if (ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl)) return [{ members: decl.members, source }];
    if (ts.isTypeAliasDeclaration(decl)) return literalParts(decl).map((literal) => ({ members: literal.members, source }));
    return [];
  });
}

/**
 * The public members of a class, interface or object type, `Name.member` → kind and
 * signature. A method with overloads lists its overloads (`; ` between them), not the
 * implementation's signature; a getter and a setter of one name are one entry.
 */
function members(name: string, symbol: ts.Symbol, checker: ts.TypeChecker): Record<string, string> {
  const found = new Map<string, string[]>();
  const add = (key: string, text: string) => found.set(key, [...(found.get(key) ?? []), text]);
  for (const { members: list, source } of memberLists(symbol)) {
    for (const member of list) {
      const key = memberName(member, source);
      if (key === undefined) continue;
      // An overloaded method or constructor: only its overloads are public, not the implementation.
      const implementation = (ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) && member.body !== undefined;
      if (implementation && list.some((other) => other !== member && other.kind === member.kind && !("body" in other && other.body) && memberName(other, source) === key)) continue;
      add(key, memberText(member, source, checker));
      // A constructor's `public`/`readonly` parameters are properties too.
      if (!ts.isConstructorDeclaration(member)) continue;
      for (const p of member.parameters) {
        if (!ts.isParameterPropertyDeclaration(p, member) || !ts.isIdentifier(p.name) || p.name.text.startsWith("_")) continue;
        if (hasModifier(p, ts.SyntaxKind.PrivateKeyword) || hasModifier(p, ts.SyntaxKind.ProtectedKeyword)) continue;
        const type = p.type ? print(p.type, source) : inferred(checker.getTypeAtLocation(p), p, checker);
        add(p.name.text, `${hasModifier(p, ts.SyntaxKind.ReadonlyKeyword) ? "readonly " : ""}property: ${type}`);
      }
    }
  }
  const out: Record<string, string> = {};
  for (const [key, texts] of [...found].sort(([a], [b]) => byName(a, b))) {
    const getter = texts.find((t) => /(^| )getter: /.test(t));
    const setter = texts.find((t) => /(^| )setter \(/.test(t));
    out[`${name}.${key}`] = getter && setter && texts.length === 2 ? getter.replace(/(^| )getter: /, "$1getter + setter: ") : texts.join("; ");
  }
  return out;
}

/** Names in one order whatever the machine's locale. */
const byName = (a: string, b: string) => a.localeCompare(b, "en");

/**
 * The package's sources as the report reads them. Only the package's own files and the ES
 * library, unresolved imports of other packages left alone: naming what is exported needs
 * the re-export chains, and signatures are printed as the source writes them, not from the
 * types behind them; reading the dependencies' declarations would take most of a minute.
 * The few types the source leaves to inference (an error's `code = ErrorCode.X`, a store's
 * arrow-function properties) need the ES library's `Promise` and `Object` to come out right;
 * one inferred from another package would print as `any`: write it in the source then.
 */
export function packageProgram(): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  return ts.createProgram(config!.fileNames, { ...config!.options, noEmit: true, noResolve: true, types: [], lib: ["lib.es2022.d.ts"] });
}

/**
 * Each entry's exported names and their kinds (`class`, `function`, `const`, `interface`, `type`, …),
 * a class's or interface's `extends`/`implements` after its kind, an object type alias's shape,
 * and after each class, interface and object type its public members; sorted.
 */
export function apiReport(program: ts.Program = packageProgram()): ApiReport {
  return reportOf(program, publicEntries());
}

/** The report of `entries` (entry name → source file) as `program` reads them. */
export function reportOf(program: ts.Program, entries: Map<string, string>): ApiReport {
  const checker = program.getTypeChecker();
  const report: ApiReport = {};
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry}: cannot read ${file}`);
    const names: Record<string, string> = {};
    for (const exported of checker.getExportsOfModule(moduleSymbol).sort((a, b) => byName(a.name, b.name))) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const kinds = KINDS.filter(([flag]) => symbol.flags & flag).map(([, kind]) => kind);
      names[exported.name] = (kinds.join(" + ") || "unknown") + (symbol.declarations ?? []).map(shapeText).join("");
      Object.assign(names, members(exported.name, symbol, checker));
    }
    report[entry] = names;
  }
  return report;
}

export const renderReport = (report: ApiReport) => `${JSON.stringify(report, null, 2)}\n`;

/** The type names in a node's signature parts: its type annotations, heritage and type arguments, never a body or an initializer's value. */
function typeNames(node: ts.Node, found: (ts.EntityName | ts.Expression)[] = []): (ts.EntityName | ts.Expression)[] {
  if (ts.isTypeReferenceNode(node)) found.push(node.typeName);
  else if (ts.isExpressionWithTypeArguments(node)) found.push(node.expression);
  else if (ts.isTypeQueryNode(node)) found.push(node.exprName);
  ts.forEachChild(node, (child) => {
    // What a function does and what a value is are not its signature (an annotated one's type is).
    if ("body" in node && child === node.body) return;
    if ("initializer" in node && child === node.initializer) return;
    typeNames(child, found);
  });
  return found;
}

/** A value without its `satisfies` checks: what it is checked against is not part of its type. */
function withoutSatisfies(node: ts.Expression): ts.Expression {
  return ts.isSatisfiesExpression(node) ? withoutSatisfies(node.expression) : node;
}

/** The parts of an exported declaration whose types are public, each with the name it is listed under. */
function publicParts(name: string, decl: ts.Declaration): { where: string; node: ts.Node }[] {
  const source = decl.getSourceFile();
  if (ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl)) {
    const outline = [...(decl.typeParameters ?? []), ...(decl.heritageClauses ?? [])].map((node) => ({ where: name, node }));
    const list = decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>;
    return [
      ...outline,
      ...list.flatMap((member) => {
        const key = memberName(member, source);
        if (key === undefined) return [];
        // A constructor's parameters are its signature, whatever they become.
        return [{ where: `${name}.${key}`, node: member }];
      }),
    ];
  }
  if (ts.isTypeAliasDeclaration(decl) || ts.isFunctionDeclaration(decl)) return hasTag(decl, "internal") ? [] : [{ where: name, node: decl }];
  // A const's type is its annotation, or what its value's own annotations make it (the type arguments of `defineUpdate<R, [A]>(…)`, an `as` cast).
  if (ts.isVariableDeclaration(decl)) return decl.type ? [{ where: name, node: decl.type }] : decl.initializer ? [{ where: name, node: withoutSatisfies(decl.initializer) }] : [];
  return [];
}

/**
 * Types of the package's own that a public signature names and no entry exports, one line
 * each: the type (or the value a `typeof` names), where it is declared, and the signatures
 * that name it. What other packages declare (Temporal's `Duration`, `Client`) is theirs to
 * export; type parameters are not types one imports.
 */
export function unexportedTypes(program: ts.Program, entries: Map<string, string>): string[] {
  const checker = program.getTypeChecker();
  const resolve = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const exported = new Set<ts.Symbol>();
  const modules: [string, ts.Symbol][] = [];
  for (const [entry, file] of entries) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${entry}: cannot read ${file}`);
    modules.push([entry, moduleSymbol]);
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) exported.add(resolve(symbol));
  }
  // The program holds the package's sources and the ES library's declarations: a source file is the package's own.
  const own = (file: ts.SourceFile) => !file.isDeclarationFile && !file.fileName.includes("/node_modules/");
  const missing = new Map<ts.Symbol, Set<string>>();
  for (const [entry, moduleSymbol] of modules) {
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const target = resolve(symbol);
      for (const decl of target.declarations ?? []) {
        for (const { where, node } of publicParts(symbol.name, decl)) {
          for (const typeName of typeNames(node)) {
            const at = ts.isQualifiedName(typeName) ? typeName.right : ts.isPropertyAccessExpression(typeName) ? typeName.name : typeName;
            const named = checker.getSymbolAtLocation(at);
            if (!named) continue;
            const type = resolve(named);
            if (type.flags & (ts.SymbolFlags.TypeParameter | ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) continue;
            const declared = type.declarations?.[0];
            if (!declared || !own(declared.getSourceFile()) || exported.has(type)) continue;
            missing.set(type, (missing.get(type) ?? new Set()).add(`${entry}: ${where}`));
          }
        }
      }
    }
  }
  return [...missing]
    .map(([type, users]) => {
      const file = relative(root, type.declarations![0]!.getSourceFile().fileName);
      const named = [...users].sort(byName);
      return `${type.name} (${file}), named by ${named.slice(0, 3).join(", ")}${named.length > 3 ? ` and ${named.length - 3} more` : ""}`;
    })
    .sort(byName);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const program = packageProgram();
  const missing = unexportedTypes(program, publicEntries());
  if (missing.length > 0) {
    console.error(`Public signatures name types no entry exports: export each from the entry its users import, or keep it out of public signatures.\n  ${missing.join("\n  ")}`);
    process.exit(1);
  }
  writeFileSync(reportPath, renderReport(apiReport(program)));
  console.log(`wrote ${reportPath}`);
}
