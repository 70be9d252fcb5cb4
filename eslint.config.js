// The configuration lives with its packages in tools/lint (a package of its own: see its package.json).
export { default } from './tools/lint/eslint.config.js'
