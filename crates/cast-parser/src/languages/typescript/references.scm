
; TypeScript base classes and implemented interfaces.
(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause
  value: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit
(extends_type_clause type: (generic_type name: (type_identifier) @name)) @reference.inherit

; Types named in annotations, signatures and declarations.
(nested_type_identifier module: (_) @receiver name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type

; Type facts (`@fact.*`): what a variable or a field holds where the code says, for calls on
; it (`client.send()`, `this.client.send()`). A parameter holds in the body.
(required_parameter pattern: (identifier) @fact.param type: (type_annotation (_) @fact.type))
(optional_parameter pattern: (identifier) @fact.param type: (type_annotation (_) @fact.type))
(required_parameter (accessibility_modifier)
  pattern: (identifier) @fact.field type: (type_annotation (_) @fact.type))
(public_field_definition
  name: (property_identifier) @fact.field type: (type_annotation (_) @fact.type))
(public_field_definition
  name: (property_identifier) @fact.field value: (new_expression constructor: (_) @fact.new))
(variable_declarator
  name: (identifier) @fact.var type: (type_annotation (_) @fact.type))
(variable_declarator
  name: (identifier) @fact.var value: (new_expression constructor: (_) @fact.new))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @fact.field)
  right: (new_expression constructor: (_) @fact.new))
