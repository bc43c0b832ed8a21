; Go calls, composite literals (`Server{…}` constructs a Server) and embedded types.

(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (index_expression operand: (identifier) @name)) @reference.call

(composite_literal type: (type_identifier) @name) @reference.call
(composite_literal
  type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)) @reference.call
(composite_literal type: (generic_type type: (type_identifier) @name)) @reference.call

(field_declaration_list
  (field_declaration !name type: (type_identifier) @name)) @reference.inherit
(field_declaration_list
  (field_declaration !name
    type: (pointer_type (type_identifier) @name))) @reference.inherit
(field_declaration_list
  (field_declaration !name
    type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))) @reference.inherit
(interface_type (type_elem (type_identifier) @name)) @reference.inherit
(interface_type
  (type_elem (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name))) @reference.inherit

; Types named in signatures, fields and declarations.
(qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type

; Type facts (`@fact.*`): what a variable holds where the code says, for calls on it
; (`s.handle()` in a method of `*Server`). A receiver's and a parameter's hold in the body.
(parameter_declaration name: (identifier) @fact.param type: (_) @fact.type)
(var_spec name: (identifier) @fact.var type: (_) @fact.type)
(short_var_declaration
  left: (expression_list . (identifier) @fact.var)
  right: (expression_list .
    [(composite_literal type: (_) @fact.new)
     (unary_expression operand: (composite_literal type: (_) @fact.new))
     (call_expression function: [(identifier) (selector_expression)] @fact.new)
     (identifier) @fact.same] .))
(field_declaration_list
  (field_declaration name: (field_identifier) @fact.field type: (_) @fact.type))
