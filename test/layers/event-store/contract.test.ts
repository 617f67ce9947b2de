import { eventStoreContract } from "./contract.js"
import { subjects } from "./stores.js"

for (const subject of subjects) eventStoreContract(subject)
