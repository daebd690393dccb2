import { builtinModules } from "node:module";
import tseslint from "typescript-eslint";

// Workflow code runs in Temporal's deterministic sandbox: no Node, no I/O, no activity,
// client or worker code. Types may still be shared (`import type`).
const forbiddenInWorkflows = {
  paths: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)].map((name) => ({
    name,
    message: "Workflow code must not import Node built-ins: it runs in Temporal's deterministic sandbox.",
  })),
  patterns: [
    {
      group: ["@temporalio/client", "@temporalio/worker", "@temporalio/activity", "@temporalio/testing", "openai"],
      message: "Workflow code must not import the client, the worker, activities or network clients.",
      allowTypeImports: true,
    },
    {
      group: ["**/activities/**", "**/src/client/**", "**/src/worker/**", "**/src/testing/**", "**/src/model/openai*"],
      message: "Workflow code must not import activity, client, worker or testing code; share types with `import type`.",
      allowTypeImports: true,
    },
  ],
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["workflows/**/*.ts"],
    rules: {
      "no-restricted-imports": "off",
      "@typescript-eslint/no-restricted-imports": ["error", forbiddenInWorkflows],
    },
  },
);
