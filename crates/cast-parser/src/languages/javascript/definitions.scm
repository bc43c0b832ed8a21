; JavaScript definitions (also read for TypeScript), after tree-sitter-javascript's tags.scm:
; functions, classes, methods, functions bound to a name (`const f = () => {}`,
; `exports.f = function () {}`, `F.prototype.m = function () {}`), and exported constants.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(class name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method

(variable_declarator
  name: (identifier) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
    (generator_function body: (_) @body)
  ]) @definition.function

(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @receiver
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]
  (#eq? @_prototype "prototype")) @definition.method
(assignment_expression
  left: [
    (identifier) @name
    (member_expression property: (property_identifier) @name)
  ]
  right: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.function

(pair
  key: (property_identifier) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.function

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))

; A named function expression (`return function handler(c) {}`); when it is also bound to a
; name on its line (`exports.f = function f() {}`), the extractor keeps one.
(function_expression name: (identifier) @name) @definition.function
