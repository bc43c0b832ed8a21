; Rust calls (functions, methods, paths, macros), struct literals and implemented traits.

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call

(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation
  macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call

(struct_expression name: (type_identifier) @name) @reference.call
(struct_expression
  name: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.call

(impl_item trait: (type_identifier) @name) @reference.inherit
(impl_item
  trait: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.inherit
(impl_item trait: (generic_type type: (type_identifier) @name)) @reference.inherit
(impl_item
  trait: (generic_type
    type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))) @reference.inherit

; Types named in signatures, fields and declarations (generic parameters too: they resolve to
; nothing). A path's last name is the type; the rest its receiver.
(scoped_type_identifier path: (_) @receiver name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type

; Type facts (`@fact.*`): what a variable or a field holds where the code says, for calls on
; it (`client.send()`, `self.client.send()`). A parameter holds in the body; a `let` without
; a type or a constructor shadows what an earlier one said.
(parameter pattern: (identifier) @fact.param type: (_) @fact.type)
(let_declaration
  pattern: [(identifier) @fact.var (mut_pattern (identifier) @fact.var)]
  type: (_) @fact.type)
(let_declaration
  pattern: [(identifier) @fact.var (mut_pattern (identifier) @fact.var)]
  value: [(call_expression function: [(identifier) (scoped_identifier)] @fact.new)
          (struct_expression name: (_) @fact.new)])
(let_declaration pattern: [(identifier) @fact.var (mut_pattern (identifier) @fact.var)])
(field_declaration_list
  (field_declaration name: (field_identifier) @fact.field type: (_) @fact.type))
