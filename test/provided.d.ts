// Types for the values test/global-setup.ts provides to tests via `inject(...)`.
export {};

declare module "vitest" {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    /** The run's one workflow bundle (test/workflow-bundle.ts); startHarness() passes it on. */
    workflowBundlePath: string;
    /** The same with examples/plain-workflow's workflows beside the agents' (`plainWorkflowBundle()`). */
    plainWorkflowBundlePath: string;
    /** The package compiled as `npm run build` emits it, in dist/ under this folder (test/cli-build.ts): what the CLI tests spawn. */
    cliArtifacts: string;
  }
}
