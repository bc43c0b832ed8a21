; JavaScript imports (also read for TypeScript): `import`, re-exports, `require` and `import()`.
; A default or namespace import binds the module itself, as `import m as x` does in Python.

(import_statement source: (_) @import.module) @import
(import_statement
  (import_clause (identifier) @import.alias) source: (_) @import.module) @import
(import_statement
  (import_clause (namespace_import (identifier) @import.alias)) source: (_) @import.module) @import
(import_statement
  (import_clause
    (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (_) @import.module) @import

(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_)? @import.alias))
  source: (_) @import.module) @import
(export_statement "*" @import.star source: (_) @import.module) @import
(export_statement (namespace_export (_) @import.alias) source: (_) @import.module) @import

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import
(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module))
  (#eq? @_require "require")) @import
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import
