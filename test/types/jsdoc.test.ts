/**
 * Editor help: every public method of the public types carries a JSDoc comment
 * with an `@example`, so editors show what it does and how it is called on hover.
 * Read from the sources with TypeScript's parser (no type checking, so it is fast).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const root = resolve(__dirname, '../..');

function parse(path: string): ts.SourceFile {
  return ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.ES2022, true);
}

function hasExample(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'example' && String(tag.comment ?? '').trim() !== '');
}

/** The member types that make a property a method: matchers, handlers, `send`-like and plain function types. */
const CALLABLE_TYPES = new Set(['IRouterMatcher', 'IRouterHandler', 'ApplicationRequestHandler', 'Send']);
function isCallable(type: ts.TypeNode | undefined): boolean {
  if (!type) return false;
  if (ts.isFunctionTypeNode(type)) return true;
  if (ts.isParenthesizedTypeNode(type)) return isCallable(type.type);
  if (ts.isIntersectionTypeNode(type)) return type.types.some(isCallable);
  return ts.isTypeReferenceNode(type) && CALLABLE_TYPES.has(type.typeName.getText());
}

/** Method names of `interfaceName` with no declaration documented by an example. */
function undocumentedMethods(path: string, interfaceName: string): string[] {
  const file = parse(path);
  const declaration = file.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === interfaceName,
  );
  assert.ok(declaration, `${interfaceName} is declared in ${path}`);
  const documented = new Map<string, boolean>();
  for (const member of declaration.members) {
    const isMethod = ts.isMethodSignature(member) || (ts.isPropertySignature(member) && isCallable(member.type));
    if (!isMethod || !member.name) continue;
    const name = member.name.getText();
    documented.set(name, documented.get(name) === true || hasExample(member));
  }
  assert.ok(documented.size > 0, `${interfaceName} has methods`);
  return [...documented].filter(([, ok]) => !ok).map(([name]) => name);
}

describe('editor help in the public types', () => {
  const interfaces: Array<[string, string]> = [
    // Request's and Response's members are declared on the interfaces they extend.
    ['src/types/request.ts', 'CoreRequest'],
    ['src/types/response.ts', 'CoreResponse'],
    ['src/types/application.ts', 'Application'],
    ['src/types/router.ts', 'IRouter'],
    ['src/types/route.ts', 'IRoute'],
  ];
  for (const [path, name] of interfaces) {
    it(`every method of ${name} has a JSDoc @example`, () => {
      assert.deepEqual(undocumentedMethods(path, name), []);
    });
  }

  it('every function of the `webapp` export has a JSDoc @example', () => {
    const file = parse('src/index.ts');
    const factory = file.statements.find(
      (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'webapp',
    );
    assert.ok(factory && hasExample(factory), 'webapp()');
    const namespace = file.statements.find(
      (s): s is ts.ModuleDeclaration => ts.isModuleDeclaration(s) && s.name.getText() === 'webapp',
    );
    assert.ok(namespace?.body && ts.isModuleBlock(namespace.body));
    const missing: string[] = [];
    for (const statement of namespace.body.statements) {
      if (ts.isFunctionDeclaration(statement) && statement.name) {
        if (!hasExample(statement)) missing.push(statement.name.text);
        continue;
      }
      if (!ts.isVariableStatement(statement)) continue;
      for (const variable of statement.declarationList.declarations) {
        const name = variable.name.getText();
        const callable = variable.type && (ts.isFunctionTypeNode(variable.type) || ts.isTypeLiteralNode(variable.type));
        if (callable && !hasExample(statement)) missing.push(name);
      }
    }
    assert.deepEqual(missing, []);
  });
});
