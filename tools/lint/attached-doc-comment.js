// @ts-check
/**
 * A local ESLint rule: every doc comment (`/** … *\/`) sits on the line right above what it
 * documents, a declaration or a member. One followed by a blank line, by another comment, by a
 * statement such as an `if`, or by nothing documents nothing: it was left behind when the code
 * below it moved, or put in the wrong place. The file's opening comment (before its first
 * statement) and inline type casts (`/** @type … *\/ (x)`) are exempt.
 *
 * @type {import('eslint').Rule.RuleModule}
 */
export const attachedDocComment = {
  meta: {
    type: 'problem',
    docs: { description: 'Doc comments sit right above a declaration or member' },
    schema: [],
    messages: {
      detached: 'This doc comment documents nothing: {{why}}.',
    },
  },
  create(context) {
    const source = context.sourceCode
    return {
      Program(program) {
        const first = program.body[0]
        for (const comment of source.getAllComments()) {
          if (
            comment.type !== 'Block' ||
            !comment.value.startsWith('*') ||
            comment.value.startsWith('**')
          )
            continue
          if (!first || comment.range[1] <= first.range[0]) continue
          if (/^\*\s*@(type|satisfies)\b/.test(comment.value)) continue
          const next = source.getTokenAfter(comment, { includeComments: true })
          const why = reason(comment, next)
          if (why)
            context.report({
              loc: comment.loc ?? program.loc ?? { line: 1, column: 0 },
              messageId: 'detached',
              data: { why },
            })
        }
      },
    }

    /**
     * @param {import('estree').Comment} comment
     * @param {import('eslint').AST.Token | import('estree').Comment | null} next
     */
    function reason(comment, next) {
      if (!next || !next.loc || !comment.loc) return 'nothing follows it'
      if (next.type === 'Line' || next.type === 'Block') {
        // An eslint directive may sit between a doc comment and its declaration.
        if (next.type === 'Line' && /^\s*eslint-disable-next-line\b/.test(next.value))
          return reason(next, source.getTokenAfter(next, { includeComments: true }))
        return 'another comment follows it'
      }
      if (next.loc.start.line > comment.loc.end.line + 1)
        return 'a blank line parts it from the code below'
      let node = source.getNodeByRangeIndex(next.range[0])
      while (
        node &&
        node.parent &&
        node.parent.range?.[0] === next.range[0] &&
        node.parent.type !== 'Program'
      )
        node = node.parent
      if (!node || !DOCUMENTED.has(node.type))
        return `it is above ${node ? `a ${node.type}` : 'no node'}, not a declaration`
      return null
    }
  },
}

const DOCUMENTED = new Set([
  'FunctionDeclaration',
  'ClassDeclaration',
  'VariableDeclaration',
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'TSTypeAliasDeclaration',
  'TSInterfaceDeclaration',
  'TSEnumDeclaration',
  'TSEnumMember',
  'TSModuleDeclaration',
  'TSDeclareFunction',
  'TSPropertySignature',
  'TSMethodSignature',
  'TSIndexSignature',
  'TSCallSignatureDeclaration',
  'TSConstructSignatureDeclaration',
  'PropertyDefinition',
  'MethodDefinition',
  'TSAbstractMethodDefinition',
  'TSAbstractPropertyDefinition',
  'Property',
  'TSParameterProperty',
  // A parameter documented in place.
  'AssignmentPattern',
  'RestElement',
  // A member of a union type documented in place.
  'TSUnionType',
  'TSTypeLiteral',
  'AccessorProperty',
  // Arguments and array elements documented in place (a route in a list, say).
  'ObjectExpression',
  'ArrowFunctionExpression',
  'FunctionExpression',
  'CallExpression',
  'Identifier',
  'TemplateLiteral',
  'Literal',
])
