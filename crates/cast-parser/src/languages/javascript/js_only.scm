
; Class fields holding a function (`handle = () => {}`), JavaScript's spelling.
(field_definition
  property: (property_identifier) @name
  value: [
    (arrow_function) @function
    (function_expression) @function
  ]) @definition.method
