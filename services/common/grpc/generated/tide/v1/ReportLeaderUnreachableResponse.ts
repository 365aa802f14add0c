// Original file: protos/tide/v1/controller.proto


export interface ReportLeaderUnreachableResponse__Input {
}

export interface ReportLeaderUnreachableResponse {
}
