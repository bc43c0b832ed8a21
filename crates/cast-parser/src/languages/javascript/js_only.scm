
; Class fields holding a function (`handle = () => {}`), JavaScript's spelling.
(field_definition
  property: (property_identifier) @name
  value: [
    (arrow_function body: (_) @body)
    (function_expression body: (_) @body)
  ]) @definition.method
