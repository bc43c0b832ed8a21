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
