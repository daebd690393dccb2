// Types for the values test/global-setup.ts provides to tests via `inject(...)`.
export {};

declare module "vitest" {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalNamespace: string;
    /** The run's one workflow bundle (test/workflow-bundle.ts); startHarness() passes it on. */
    workflowBundlePath: string;
  }
}
