// Rules of ours for `redocly lint`, beside the recommended ruleset (see redocly.yaml).

/** Every operation answers at least one 4xx with a `$ref` to a shared response. */
function SharedErrorResponse() {
  return {
    Operation: {
      enter(operation, ctx) {
        const responses = operation.responses ?? {};
        const shared = Object.entries(responses).some(
          ([status, response]) =>
            /^4\d\d$/.test(status) &&
            typeof response?.$ref === "string" &&
            /(^|\/)components\/responses\//.test(response.$ref),
        );
        if (!shared) {
          ctx.report({
            message:
              "Operation must answer at least one 4xx with a $ref to a shared response in components/responses.",
            location: ctx.location.child("responses"),
          });
        }
      },
    },
  };
}

export default function idvPlugin() {
  return {
    id: "idv",
    rules: {
      oas3: {
        "shared-error-response": SharedErrorResponse,
      },
    },
  };
}
