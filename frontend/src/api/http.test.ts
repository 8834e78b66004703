import { describe, expect, it } from "vitest";

import { ApiError } from "./http";

describe("ApiError.detail", () => {
  it("does not repeat a field's message the server already put in its own", () => {
    // What the server answers when adding a member who does not exist.
    const error = new ApiError(
      400,
      "invalid-request",
      "username: No active user is called 'bob_walkk'.",
      [],
      { username: ["No active user is called 'bob_walkk'."] },
    );
    expect(error.detail).toBe("username: No active user is called 'bob_walkk'.");
  });

  it("adds the first field's message when the message does not say it", () => {
    const error = new ApiError(400, "invalid-document", "The document is not valid.", [], {
      name: ["This field may not be blank."],
    });
    expect(error.detail).toBe("The document is not valid. (name: This field may not be blank.)");
  });

  it("is the message when there are no fields", () => {
    expect(new ApiError(404, "not-found", "Not found.").detail).toBe("Not found.");
  });
});
