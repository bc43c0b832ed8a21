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
    (arrow_function) @function
    (function_expression) @function
    (generator_function) @function
  ]) @definition.function

; `f = function () {}`, `exports.f = …`, `F.prototype.m = …` (a method of F): the target's
; shapes are read by the description's `declarator` (mod.rs), which took a third of this
; query's compile time when spelled out here.
(assignment_expression
  left: (_) @declarator
  right: [
    (arrow_function) @function
    (function_expression) @function
  ]) @definition.function

(pair
  key: (property_identifier) @name
  value: [
    (arrow_function) @function
    (function_expression) @function
  ]) @definition.function

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)))

; A named function expression (`return function handler(c) {}`); when it is also bound to a
; name on its line (`exports.f = function f() {}`), the extractor keeps one.
(function_expression name: (identifier) @name) @definition.function
