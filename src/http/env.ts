import type { Principal } from "../core/json.js";

/** What the handler's middleware puts on every request's context. */
export interface HttpEnv {
  Variables: {
    /** What `authenticate` returned for this request. */
    principal: Principal | undefined;
  };
}
